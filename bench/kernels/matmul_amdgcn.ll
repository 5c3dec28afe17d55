; bench: a 16x16 tiled matmul, from OpenCL C by clang-22 -O0 -Xclang -disable-O0-optnone (noinline removed)
; ModuleID = 'mm.cl'
source_filename = "mm.cl"
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

@matmul.ta = internal addrspace(3) global [16 x [16 x float]] undef, align 4
@matmul.tb = internal addrspace(3) global [16 x [16 x float]] undef, align 4

; Function Attrs: convergent norecurse nounwind
define protected amdgpu_kernel void @matmul(ptr addrspace(1) noundef align 4 %0, ptr addrspace(1) noundef align 4 %1, ptr addrspace(1) noundef align 4 %2, i32 noundef %3) #0 !kernel_arg_addr_space !6 !kernel_arg_access_qual !7 !kernel_arg_type !8 !kernel_arg_base_type !8 !kernel_arg_type_qual !9 {
  %5 = alloca ptr addrspace(1), align 8, addrspace(5)
  %6 = alloca ptr addrspace(1), align 8, addrspace(5)
  %7 = alloca ptr addrspace(1), align 8, addrspace(5)
  %8 = alloca i32, align 4, addrspace(5)
  %9 = alloca i32, align 4, addrspace(5)
  %10 = alloca i32, align 4, addrspace(5)
  %11 = alloca i32, align 4, addrspace(5)
  %12 = alloca i32, align 4, addrspace(5)
  %13 = alloca float, align 4, addrspace(5)
  %14 = alloca i32, align 4, addrspace(5)
  %15 = alloca i32, align 4, addrspace(5)
  %16 = alloca ptr addrspace(1), align 8, addrspace(5)
  %17 = alloca ptr addrspace(1), align 8, addrspace(5)
  %18 = alloca ptr addrspace(1), align 8, addrspace(5)
  %19 = alloca i32, align 4, addrspace(5)
  %20 = addrspacecast ptr addrspace(5) %16 to ptr
  %21 = addrspacecast ptr addrspace(5) %17 to ptr
  %22 = addrspacecast ptr addrspace(5) %18 to ptr
  %23 = addrspacecast ptr addrspace(5) %19 to ptr
  store ptr addrspace(1) %0, ptr %20, align 8
  store ptr addrspace(1) %1, ptr %21, align 8
  store ptr addrspace(1) %2, ptr %22, align 8
  store i32 %3, ptr %23, align 4
  %24 = load ptr addrspace(1), ptr %20, align 8
  %25 = load ptr addrspace(1), ptr %21, align 8
  %26 = load ptr addrspace(1), ptr %22, align 8
  %27 = load i32, ptr %23, align 4
  %28 = addrspacecast ptr addrspace(5) %5 to ptr
  %29 = addrspacecast ptr addrspace(5) %6 to ptr
  %30 = addrspacecast ptr addrspace(5) %7 to ptr
  %31 = addrspacecast ptr addrspace(5) %8 to ptr
  store ptr addrspace(1) %24, ptr %28, align 8
  store ptr addrspace(1) %25, ptr %29, align 8
  store ptr addrspace(1) %26, ptr %30, align 8
  store i32 %27, ptr %31, align 4
  %32 = call i32 @llvm.amdgcn.workitem.id.x()
  store i32 %32, ptr addrspace(5) %9, align 4
  %33 = call i32 @llvm.amdgcn.workitem.id.y()
  store i32 %33, ptr addrspace(5) %10, align 4
  %34 = call i32 @llvm.amdgcn.workgroup.id.y()
  %35 = mul i32 %34, 16
  %36 = load i32, ptr addrspace(5) %10, align 4
  %37 = add i32 %35, %36
  store i32 %37, ptr addrspace(5) %11, align 4
  %38 = call i32 @llvm.amdgcn.workgroup.id.x()
  %39 = mul i32 %38, 16
  %40 = load i32, ptr addrspace(5) %9, align 4
  %41 = add i32 %39, %40
  store i32 %41, ptr addrspace(5) %12, align 4
  store float 0.000000e+00, ptr addrspace(5) %13, align 4
  store i32 0, ptr addrspace(5) %14, align 4
  br label %42

42:                                               ; preds = %129, %4
  %43 = load i32, ptr addrspace(5) %14, align 4
  %44 = load i32, ptr %31, align 4
  %45 = icmp slt i32 %43, %44
  br i1 %45, label %46, label %132

46:                                               ; preds = %42
  %47 = load i32, ptr addrspace(5) %11, align 4
  %48 = load i32, ptr %31, align 4
  %49 = icmp slt i32 %47, %48
  br i1 %49, label %50, label %68

50:                                               ; preds = %46
  %51 = load i32, ptr addrspace(5) %14, align 4
  %52 = load i32, ptr addrspace(5) %9, align 4
  %53 = add nsw i32 %51, %52
  %54 = load i32, ptr %31, align 4
  %55 = icmp slt i32 %53, %54
  br i1 %55, label %56, label %68

56:                                               ; preds = %50
  %57 = load ptr addrspace(1), ptr %28, align 8
  %58 = load i32, ptr addrspace(5) %11, align 4
  %59 = load i32, ptr %31, align 4
  %60 = mul nsw i32 %58, %59
  %61 = load i32, ptr addrspace(5) %14, align 4
  %62 = add nsw i32 %60, %61
  %63 = load i32, ptr addrspace(5) %9, align 4
  %64 = add nsw i32 %62, %63
  %65 = sext i32 %64 to i64
  %66 = getelementptr inbounds float, ptr addrspace(1) %57, i64 %65
  %67 = load float, ptr addrspace(1) %66, align 4
  br label %69

68:                                               ; preds = %50, %46
  br label %69

69:                                               ; preds = %68, %56
  %70 = phi float [ %67, %56 ], [ 0.000000e+00, %68 ]
  %71 = load i32, ptr addrspace(5) %10, align 4
  %72 = sext i32 %71 to i64
  %73 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.ta, i64 0, i64 %72
  %74 = load i32, ptr addrspace(5) %9, align 4
  %75 = sext i32 %74 to i64
  %76 = getelementptr inbounds [16 x float], ptr addrspace(3) %73, i64 0, i64 %75
  store float %70, ptr addrspace(3) %76, align 4
  %77 = load i32, ptr addrspace(5) %12, align 4
  %78 = load i32, ptr %31, align 4
  %79 = icmp slt i32 %77, %78
  br i1 %79, label %80, label %98

80:                                               ; preds = %69
  %81 = load i32, ptr addrspace(5) %14, align 4
  %82 = load i32, ptr addrspace(5) %10, align 4
  %83 = add nsw i32 %81, %82
  %84 = load i32, ptr %31, align 4
  %85 = icmp slt i32 %83, %84
  br i1 %85, label %86, label %98

86:                                               ; preds = %80
  %87 = load ptr addrspace(1), ptr %29, align 8
  %88 = load i32, ptr addrspace(5) %14, align 4
  %89 = load i32, ptr addrspace(5) %10, align 4
  %90 = add nsw i32 %88, %89
  %91 = load i32, ptr %31, align 4
  %92 = mul nsw i32 %90, %91
  %93 = load i32, ptr addrspace(5) %12, align 4
  %94 = add nsw i32 %92, %93
  %95 = sext i32 %94 to i64
  %96 = getelementptr inbounds float, ptr addrspace(1) %87, i64 %95
  %97 = load float, ptr addrspace(1) %96, align 4
  br label %99

98:                                               ; preds = %80, %69
  br label %99

99:                                               ; preds = %98, %86
  %100 = phi float [ %97, %86 ], [ 0.000000e+00, %98 ]
  %101 = load i32, ptr addrspace(5) %10, align 4
  %102 = sext i32 %101 to i64
  %103 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.tb, i64 0, i64 %102
  %104 = load i32, ptr addrspace(5) %9, align 4
  %105 = sext i32 %104 to i64
  %106 = getelementptr inbounds [16 x float], ptr addrspace(3) %103, i64 0, i64 %105
  store float %100, ptr addrspace(3) %106, align 4
  call void @llvm.amdgcn.s.barrier()
  store i32 0, ptr addrspace(5) %15, align 4
  br label %107

107:                                              ; preds = %110, %99
  %108 = load i32, ptr addrspace(5) %15, align 4
  %109 = icmp slt i32 %108, 16
  br i1 %109, label %110, label %129

110:                                              ; preds = %107
  %111 = load i32, ptr addrspace(5) %10, align 4
  %112 = sext i32 %111 to i64
  %113 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.ta, i64 0, i64 %112
  %114 = load i32, ptr addrspace(5) %15, align 4
  %115 = sext i32 %114 to i64
  %116 = getelementptr inbounds [16 x float], ptr addrspace(3) %113, i64 0, i64 %115
  %117 = load float, ptr addrspace(3) %116, align 4
  %118 = load i32, ptr addrspace(5) %15, align 4
  %119 = sext i32 %118 to i64
  %120 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.tb, i64 0, i64 %119
  %121 = load i32, ptr addrspace(5) %9, align 4
  %122 = sext i32 %121 to i64
  %123 = getelementptr inbounds [16 x float], ptr addrspace(3) %120, i64 0, i64 %122
  %124 = load float, ptr addrspace(3) %123, align 4
  %125 = load float, ptr addrspace(5) %13, align 4
  %126 = call float @llvm.fmuladd.f32(float %117, float %124, float %125)
  store float %126, ptr addrspace(5) %13, align 4
  %127 = load i32, ptr addrspace(5) %15, align 4
  %128 = add nsw i32 %127, 1
  store i32 %128, ptr addrspace(5) %15, align 4
  br label %107, !llvm.loop !10

129:                                              ; preds = %107
  call void @llvm.amdgcn.s.barrier()
  %130 = load i32, ptr addrspace(5) %14, align 4
  %131 = add nsw i32 %130, 16
  store i32 %131, ptr addrspace(5) %14, align 4
  br label %42

132:                                              ; preds = %42
  %133 = load i32, ptr addrspace(5) %11, align 4
  %134 = load i32, ptr %31, align 4
  %135 = icmp slt i32 %133, %134
  br i1 %135, label %136, label %150

136:                                              ; preds = %132
  %137 = load i32, ptr addrspace(5) %12, align 4
  %138 = load i32, ptr %31, align 4
  %139 = icmp slt i32 %137, %138
  br i1 %139, label %140, label %150

140:                                              ; preds = %136
  %141 = load float, ptr addrspace(5) %13, align 4
  %142 = load ptr addrspace(1), ptr %30, align 8
  %143 = load i32, ptr addrspace(5) %11, align 4
  %144 = load i32, ptr %31, align 4
  %145 = mul nsw i32 %143, %144
  %146 = load i32, ptr addrspace(5) %12, align 4
  %147 = add nsw i32 %145, %146
  %148 = sext i32 %147 to i64
  %149 = getelementptr inbounds float, ptr addrspace(1) %142, i64 %148
  store float %141, ptr addrspace(1) %149, align 4
  br label %150

150:                                              ; preds = %132, %136, %140
  ret void
}

; Function Attrs: alwaysinline convergent norecurse nounwind
define protected void @__clang_ocl_kern_imp_matmul(ptr addrspace(1) noundef align 4 %0, ptr addrspace(1) noundef align 4 %1, ptr addrspace(1) noundef align 4 %2, i32 noundef %3) #1 !kernel_arg_addr_space !6 !kernel_arg_access_qual !7 !kernel_arg_type !8 !kernel_arg_base_type !8 !kernel_arg_type_qual !9 {
  %5 = alloca ptr addrspace(1), align 8, addrspace(5)
  %6 = alloca ptr addrspace(1), align 8, addrspace(5)
  %7 = alloca ptr addrspace(1), align 8, addrspace(5)
  %8 = alloca i32, align 4, addrspace(5)
  %9 = alloca i32, align 4, addrspace(5)
  %10 = alloca i32, align 4, addrspace(5)
  %11 = alloca i32, align 4, addrspace(5)
  %12 = alloca i32, align 4, addrspace(5)
  %13 = alloca float, align 4, addrspace(5)
  %14 = alloca i32, align 4, addrspace(5)
  %15 = alloca i32, align 4, addrspace(5)
  %16 = addrspacecast ptr addrspace(5) %5 to ptr
  %17 = addrspacecast ptr addrspace(5) %6 to ptr
  %18 = addrspacecast ptr addrspace(5) %7 to ptr
  %19 = addrspacecast ptr addrspace(5) %8 to ptr
  store ptr addrspace(1) %0, ptr %16, align 8
  store ptr addrspace(1) %1, ptr %17, align 8
  store ptr addrspace(1) %2, ptr %18, align 8
  store i32 %3, ptr %19, align 4
  %20 = call i32 @llvm.amdgcn.workitem.id.x()
  store i32 %20, ptr addrspace(5) %9, align 4
  %21 = call i32 @llvm.amdgcn.workitem.id.y()
  store i32 %21, ptr addrspace(5) %10, align 4
  %22 = call i32 @llvm.amdgcn.workgroup.id.y()
  %23 = mul i32 %22, 16
  %24 = load i32, ptr addrspace(5) %10, align 4
  %25 = add i32 %23, %24
  store i32 %25, ptr addrspace(5) %11, align 4
  %26 = call i32 @llvm.amdgcn.workgroup.id.x()
  %27 = mul i32 %26, 16
  %28 = load i32, ptr addrspace(5) %9, align 4
  %29 = add i32 %27, %28
  store i32 %29, ptr addrspace(5) %12, align 4
  store float 0.000000e+00, ptr addrspace(5) %13, align 4
  store i32 0, ptr addrspace(5) %14, align 4
  br label %30

30:                                               ; preds = %119, %4
  %31 = load i32, ptr addrspace(5) %14, align 4
  %32 = load i32, ptr %19, align 4
  %33 = icmp slt i32 %31, %32
  br i1 %33, label %34, label %122

34:                                               ; preds = %30
  %35 = load i32, ptr addrspace(5) %11, align 4
  %36 = load i32, ptr %19, align 4
  %37 = icmp slt i32 %35, %36
  br i1 %37, label %38, label %56

38:                                               ; preds = %34
  %39 = load i32, ptr addrspace(5) %14, align 4
  %40 = load i32, ptr addrspace(5) %9, align 4
  %41 = add nsw i32 %39, %40
  %42 = load i32, ptr %19, align 4
  %43 = icmp slt i32 %41, %42
  br i1 %43, label %44, label %56

44:                                               ; preds = %38
  %45 = load ptr addrspace(1), ptr %16, align 8
  %46 = load i32, ptr addrspace(5) %11, align 4
  %47 = load i32, ptr %19, align 4
  %48 = mul nsw i32 %46, %47
  %49 = load i32, ptr addrspace(5) %14, align 4
  %50 = add nsw i32 %48, %49
  %51 = load i32, ptr addrspace(5) %9, align 4
  %52 = add nsw i32 %50, %51
  %53 = sext i32 %52 to i64
  %54 = getelementptr inbounds float, ptr addrspace(1) %45, i64 %53
  %55 = load float, ptr addrspace(1) %54, align 4
  br label %57

56:                                               ; preds = %38, %34
  br label %57

57:                                               ; preds = %56, %44
  %58 = phi float [ %55, %44 ], [ 0.000000e+00, %56 ]
  %59 = load i32, ptr addrspace(5) %10, align 4
  %60 = sext i32 %59 to i64
  %61 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.ta, i64 0, i64 %60
  %62 = load i32, ptr addrspace(5) %9, align 4
  %63 = sext i32 %62 to i64
  %64 = getelementptr inbounds [16 x float], ptr addrspace(3) %61, i64 0, i64 %63
  store float %58, ptr addrspace(3) %64, align 4
  %65 = load i32, ptr addrspace(5) %12, align 4
  %66 = load i32, ptr %19, align 4
  %67 = icmp slt i32 %65, %66
  br i1 %67, label %68, label %86

68:                                               ; preds = %57
  %69 = load i32, ptr addrspace(5) %14, align 4
  %70 = load i32, ptr addrspace(5) %10, align 4
  %71 = add nsw i32 %69, %70
  %72 = load i32, ptr %19, align 4
  %73 = icmp slt i32 %71, %72
  br i1 %73, label %74, label %86

74:                                               ; preds = %68
  %75 = load ptr addrspace(1), ptr %17, align 8
  %76 = load i32, ptr addrspace(5) %14, align 4
  %77 = load i32, ptr addrspace(5) %10, align 4
  %78 = add nsw i32 %76, %77
  %79 = load i32, ptr %19, align 4
  %80 = mul nsw i32 %78, %79
  %81 = load i32, ptr addrspace(5) %12, align 4
  %82 = add nsw i32 %80, %81
  %83 = sext i32 %82 to i64
  %84 = getelementptr inbounds float, ptr addrspace(1) %75, i64 %83
  %85 = load float, ptr addrspace(1) %84, align 4
  br label %87

86:                                               ; preds = %68, %57
  br label %87

87:                                               ; preds = %86, %74
  %88 = phi float [ %85, %74 ], [ 0.000000e+00, %86 ]
  %89 = load i32, ptr addrspace(5) %10, align 4
  %90 = sext i32 %89 to i64
  %91 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.tb, i64 0, i64 %90
  %92 = load i32, ptr addrspace(5) %9, align 4
  %93 = sext i32 %92 to i64
  %94 = getelementptr inbounds [16 x float], ptr addrspace(3) %91, i64 0, i64 %93
  store float %88, ptr addrspace(3) %94, align 4
  call void @llvm.amdgcn.s.barrier()
  store i32 0, ptr addrspace(5) %15, align 4
  br label %95

95:                                               ; preds = %115, %87
  %96 = load i32, ptr addrspace(5) %15, align 4
  %97 = icmp slt i32 %96, 16
  br i1 %97, label %98, label %118

98:                                               ; preds = %95
  %99 = load i32, ptr addrspace(5) %10, align 4
  %100 = sext i32 %99 to i64
  %101 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.ta, i64 0, i64 %100
  %102 = load i32, ptr addrspace(5) %15, align 4
  %103 = sext i32 %102 to i64
  %104 = getelementptr inbounds [16 x float], ptr addrspace(3) %101, i64 0, i64 %103
  %105 = load float, ptr addrspace(3) %104, align 4
  %106 = load i32, ptr addrspace(5) %15, align 4
  %107 = sext i32 %106 to i64
  %108 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.tb, i64 0, i64 %107
  %109 = load i32, ptr addrspace(5) %9, align 4
  %110 = sext i32 %109 to i64
  %111 = getelementptr inbounds [16 x float], ptr addrspace(3) %108, i64 0, i64 %110
  %112 = load float, ptr addrspace(3) %111, align 4
  %113 = load float, ptr addrspace(5) %13, align 4
  %114 = call float @llvm.fmuladd.f32(float %105, float %112, float %113)
  store float %114, ptr addrspace(5) %13, align 4
  br label %115

115:                                              ; preds = %98
  %116 = load i32, ptr addrspace(5) %15, align 4
  %117 = add nsw i32 %116, 1
  store i32 %117, ptr addrspace(5) %15, align 4
  br label %95, !llvm.loop !10

118:                                              ; preds = %95
  call void @llvm.amdgcn.s.barrier()
  br label %119

119:                                              ; preds = %118
  %120 = load i32, ptr addrspace(5) %14, align 4
  %121 = add nsw i32 %120, 16
  store i32 %121, ptr addrspace(5) %14, align 4
  br label %30

122:                                              ; preds = %30
  %123 = load i32, ptr addrspace(5) %11, align 4
  %124 = load i32, ptr %19, align 4
  %125 = icmp slt i32 %123, %124
  br i1 %125, label %126, label %140

126:                                              ; preds = %122
  %127 = load i32, ptr addrspace(5) %12, align 4
  %128 = load i32, ptr %19, align 4
  %129 = icmp slt i32 %127, %128
  br i1 %129, label %130, label %140

130:                                              ; preds = %126
  %131 = load float, ptr addrspace(5) %13, align 4
  %132 = load ptr addrspace(1), ptr %18, align 8
  %133 = load i32, ptr addrspace(5) %11, align 4
  %134 = load i32, ptr %19, align 4
  %135 = mul nsw i32 %133, %134
  %136 = load i32, ptr addrspace(5) %12, align 4
  %137 = add nsw i32 %135, %136
  %138 = sext i32 %137 to i64
  %139 = getelementptr inbounds float, ptr addrspace(1) %132, i64 %138
  store float %131, ptr addrspace(1) %139, align 4
  br label %140

140:                                              ; preds = %130, %126, %122
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.x() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.amdgcn.workitem.id.y() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.y() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.amdgcn.workgroup.id.x() #2

; Function Attrs: convergent nocallback nofree nounwind willreturn
declare void @llvm.amdgcn.s.barrier() #3

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #4

attributes #0 = { convergent norecurse nounwind "amdgpu-flat-work-group-size"="1,256" "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" "uniform-work-group-size"="false" }
attributes #1 = { alwaysinline convergent norecurse nounwind "amdgpu-flat-work-group-size"="1,256" "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="gfx90a" "target-features"="+16-bit-insts,+atomic-buffer-global-pk-add-f16-insts,+atomic-fadd-rtn-insts,+atomic-fmin-fmax-global-f64,+ci-insts,+cube-insts,+cvt-pknorm-vop2-insts,+dl-insts,+dot1-insts,+dot10-insts,+dot2-insts,+dot3-insts,+dot4-insts,+dot5-insts,+dot6-insts,+dot7-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+lerp-inst,+mai-insts,+qsad-insts,+s-memrealtime,+s-memtime-inst,+sad-insts,+wavefrontsize64" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nocallback nofree nounwind willreturn }
attributes #4 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3}
!opencl.ocl.version = !{!4}
!llvm.ident = !{!5}

!0 = !{i32 1, !"amdhsa_code_object_version", i32 600}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{i32 2, i32 0}
!5 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!6 = !{i32 1, i32 1, i32 1, i32 0}
!7 = !{!"none", !"none", !"none", !"none"}
!8 = !{!"float*", !"float*", !"float*", !"int"}
!9 = !{!"const", !"const", !"", !""}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.unroll.enable"}
