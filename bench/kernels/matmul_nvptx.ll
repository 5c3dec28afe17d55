; bench: a 16x16 tiled matmul, from OpenCL C by clang-22 -O0 -Xclang -disable-O0-optnone (noinline removed)
; ModuleID = 'mm.cl'
source_filename = "mm.cl"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@matmul.ta = internal addrspace(3) global [16 x [16 x float]] undef, align 4
@matmul.tb = internal addrspace(3) global [16 x [16 x float]] undef, align 4

; Function Attrs: convergent norecurse nounwind
define dso_local ptx_kernel void @matmul(ptr addrspace(1) noundef align 4 %0, ptr addrspace(1) noundef align 4 %1, ptr addrspace(1) noundef align 4 %2, i32 noundef %3) #0 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 {
  %5 = alloca ptr addrspace(1), align 8
  %6 = alloca ptr addrspace(1), align 8
  %7 = alloca ptr addrspace(1), align 8
  %8 = alloca i32, align 4
  store ptr addrspace(1) %0, ptr %5, align 8
  store ptr addrspace(1) %1, ptr %6, align 8
  store ptr addrspace(1) %2, ptr %7, align 8
  store i32 %3, ptr %8, align 4
  %9 = load ptr addrspace(1), ptr %5, align 8
  %10 = load ptr addrspace(1), ptr %6, align 8
  %11 = load ptr addrspace(1), ptr %7, align 8
  %12 = load i32, ptr %8, align 4
  call void @__clang_ocl_kern_imp_matmul(ptr addrspace(1) noundef align 4 %9, ptr addrspace(1) noundef align 4 %10, ptr addrspace(1) noundef align 4 %11, i32 noundef %12) #5
  ret void
}

; Function Attrs: convergent norecurse nounwind
define dso_local void @__clang_ocl_kern_imp_matmul(ptr addrspace(1) noundef align 4 %0, ptr addrspace(1) noundef align 4 %1, ptr addrspace(1) noundef align 4 %2, i32 noundef %3) #1 !kernel_arg_addr_space !4 !kernel_arg_access_qual !5 !kernel_arg_type !6 !kernel_arg_base_type !6 !kernel_arg_type_qual !7 {
  %5 = alloca ptr addrspace(1), align 8
  %6 = alloca ptr addrspace(1), align 8
  %7 = alloca ptr addrspace(1), align 8
  %8 = alloca i32, align 4
  %9 = alloca i32, align 4
  %10 = alloca i32, align 4
  %11 = alloca i32, align 4
  %12 = alloca i32, align 4
  %13 = alloca float, align 4
  %14 = alloca i32, align 4
  %15 = alloca i32, align 4
  store ptr addrspace(1) %0, ptr %5, align 8
  store ptr addrspace(1) %1, ptr %6, align 8
  store ptr addrspace(1) %2, ptr %7, align 8
  store i32 %3, ptr %8, align 4
  %16 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %16, ptr %9, align 4
  %17 = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  store i32 %17, ptr %10, align 4
  %18 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %19 = mul nsw i32 %18, 16
  %20 = load i32, ptr %10, align 4
  %21 = add nsw i32 %19, %20
  store i32 %21, ptr %11, align 4
  %22 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %23 = mul nsw i32 %22, 16
  %24 = load i32, ptr %9, align 4
  %25 = add nsw i32 %23, %24
  store i32 %25, ptr %12, align 4
  store float 0.000000e+00, ptr %13, align 4
  store i32 0, ptr %14, align 4
  br label %26

26:                                               ; preds = %115, %4
  %27 = load i32, ptr %14, align 4
  %28 = load i32, ptr %8, align 4
  %29 = icmp slt i32 %27, %28
  br i1 %29, label %30, label %118

30:                                               ; preds = %26
  %31 = load i32, ptr %11, align 4
  %32 = load i32, ptr %8, align 4
  %33 = icmp slt i32 %31, %32
  br i1 %33, label %34, label %52

34:                                               ; preds = %30
  %35 = load i32, ptr %14, align 4
  %36 = load i32, ptr %9, align 4
  %37 = add nsw i32 %35, %36
  %38 = load i32, ptr %8, align 4
  %39 = icmp slt i32 %37, %38
  br i1 %39, label %40, label %52

40:                                               ; preds = %34
  %41 = load ptr addrspace(1), ptr %5, align 8
  %42 = load i32, ptr %11, align 4
  %43 = load i32, ptr %8, align 4
  %44 = mul nsw i32 %42, %43
  %45 = load i32, ptr %14, align 4
  %46 = add nsw i32 %44, %45
  %47 = load i32, ptr %9, align 4
  %48 = add nsw i32 %46, %47
  %49 = sext i32 %48 to i64
  %50 = getelementptr inbounds float, ptr addrspace(1) %41, i64 %49
  %51 = load float, ptr addrspace(1) %50, align 4
  br label %53

52:                                               ; preds = %34, %30
  br label %53

53:                                               ; preds = %52, %40
  %54 = phi float [ %51, %40 ], [ 0.000000e+00, %52 ]
  %55 = load i32, ptr %10, align 4
  %56 = sext i32 %55 to i64
  %57 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.ta, i64 0, i64 %56
  %58 = load i32, ptr %9, align 4
  %59 = sext i32 %58 to i64
  %60 = getelementptr inbounds [16 x float], ptr addrspace(3) %57, i64 0, i64 %59
  store float %54, ptr addrspace(3) %60, align 4
  %61 = load i32, ptr %12, align 4
  %62 = load i32, ptr %8, align 4
  %63 = icmp slt i32 %61, %62
  br i1 %63, label %64, label %82

64:                                               ; preds = %53
  %65 = load i32, ptr %14, align 4
  %66 = load i32, ptr %10, align 4
  %67 = add nsw i32 %65, %66
  %68 = load i32, ptr %8, align 4
  %69 = icmp slt i32 %67, %68
  br i1 %69, label %70, label %82

70:                                               ; preds = %64
  %71 = load ptr addrspace(1), ptr %6, align 8
  %72 = load i32, ptr %14, align 4
  %73 = load i32, ptr %10, align 4
  %74 = add nsw i32 %72, %73
  %75 = load i32, ptr %8, align 4
  %76 = mul nsw i32 %74, %75
  %77 = load i32, ptr %12, align 4
  %78 = add nsw i32 %76, %77
  %79 = sext i32 %78 to i64
  %80 = getelementptr inbounds float, ptr addrspace(1) %71, i64 %79
  %81 = load float, ptr addrspace(1) %80, align 4
  br label %83

82:                                               ; preds = %64, %53
  br label %83

83:                                               ; preds = %82, %70
  %84 = phi float [ %81, %70 ], [ 0.000000e+00, %82 ]
  %85 = load i32, ptr %10, align 4
  %86 = sext i32 %85 to i64
  %87 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.tb, i64 0, i64 %86
  %88 = load i32, ptr %9, align 4
  %89 = sext i32 %88 to i64
  %90 = getelementptr inbounds [16 x float], ptr addrspace(3) %87, i64 0, i64 %89
  store float %84, ptr addrspace(3) %90, align 4
  call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
  store i32 0, ptr %15, align 4
  br label %91

91:                                               ; preds = %111, %83
  %92 = load i32, ptr %15, align 4
  %93 = icmp slt i32 %92, 16
  br i1 %93, label %94, label %114

94:                                               ; preds = %91
  %95 = load i32, ptr %10, align 4
  %96 = sext i32 %95 to i64
  %97 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.ta, i64 0, i64 %96
  %98 = load i32, ptr %15, align 4
  %99 = sext i32 %98 to i64
  %100 = getelementptr inbounds [16 x float], ptr addrspace(3) %97, i64 0, i64 %99
  %101 = load float, ptr addrspace(3) %100, align 4
  %102 = load i32, ptr %15, align 4
  %103 = sext i32 %102 to i64
  %104 = getelementptr inbounds [16 x [16 x float]], ptr addrspace(3) @matmul.tb, i64 0, i64 %103
  %105 = load i32, ptr %9, align 4
  %106 = sext i32 %105 to i64
  %107 = getelementptr inbounds [16 x float], ptr addrspace(3) %104, i64 0, i64 %106
  %108 = load float, ptr addrspace(3) %107, align 4
  %109 = load float, ptr %13, align 4
  %110 = call float @llvm.fmuladd.f32(float %101, float %108, float %109)
  store float %110, ptr %13, align 4
  br label %111

111:                                              ; preds = %94
  %112 = load i32, ptr %15, align 4
  %113 = add nsw i32 %112, 1
  store i32 %113, ptr %15, align 4
  br label %91, !llvm.loop !8

114:                                              ; preds = %91
  call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
  br label %115

115:                                              ; preds = %114
  %116 = load i32, ptr %14, align 4
  %117 = add nsw i32 %116, 16
  store i32 %117, ptr %14, align 4
  br label %26

118:                                              ; preds = %26
  %119 = load i32, ptr %11, align 4
  %120 = load i32, ptr %8, align 4
  %121 = icmp slt i32 %119, %120
  br i1 %121, label %122, label %136

122:                                              ; preds = %118
  %123 = load i32, ptr %12, align 4
  %124 = load i32, ptr %8, align 4
  %125 = icmp slt i32 %123, %124
  br i1 %125, label %126, label %136

126:                                              ; preds = %122
  %127 = load float, ptr %13, align 4
  %128 = load ptr addrspace(1), ptr %7, align 8
  %129 = load i32, ptr %11, align 4
  %130 = load i32, ptr %8, align 4
  %131 = mul nsw i32 %129, %130
  %132 = load i32, ptr %12, align 4
  %133 = add nsw i32 %131, %132
  %134 = sext i32 %133 to i64
  %135 = getelementptr inbounds float, ptr addrspace(1) %128, i64 %134
  store float %127, ptr addrspace(1) %135, align 4
  br label %136

136:                                              ; preds = %126, %122, %118
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.all(i32) #3

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fmuladd.f32(float, float, float) #4

attributes #0 = { convergent norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+ptx88" "uniform-work-group-size"="false" }
attributes #1 = { convergent norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-features"="+ptx88" }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { convergent nocallback nounwind }
attributes #4 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { convergent nounwind }

!llvm.module.flags = !{!0, !1}
!opencl.ocl.version = !{!2}
!llvm.ident = !{!3}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"frame-pointer", i32 2}
!2 = !{i32 2, i32 0}
!3 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!4 = !{i32 1, i32 1, i32 1, i32 0}
!5 = !{!"none", !"none", !"none", !"none"}
!6 = !{!"float*", !"float*", !"float*", !"int"}
!7 = !{!"const", !"const", !"", !""}
!8 = distinct !{!8, !9}
!9 = !{!"llvm.loop.unroll.enable"}
